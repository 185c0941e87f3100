-- sign() of doubles
SELECT id, sign(f8) AS sg FROM t
