-- min() and max() of strings (binary order)
SELECT min(s) AS mn, max(s) AS mx FROM t
