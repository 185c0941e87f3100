-- exp()
SELECT id, exp(ti / 10.0) AS e FROM t
