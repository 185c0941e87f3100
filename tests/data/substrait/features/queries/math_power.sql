-- power() of doubles
SELECT id, power(f8, 2) AS p FROM t
