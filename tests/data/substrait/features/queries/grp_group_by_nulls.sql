-- a plain GROUP BY whose key has NULLs and an empty string
SELECT g, count(*) AS n, sum(ii) AS total FROM t GROUP BY g
