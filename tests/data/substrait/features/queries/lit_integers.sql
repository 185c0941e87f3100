-- integer literals: small, negative, beyond int
SELECT 1 AS a, -42 AS b2, 2147483648 AS c, -9223372036854775807 AS d
