-- a DISTINCT and a plain aggregate over different columns
SELECT g, count(DISTINCT k) AS nk, sum(ii) AS total FROM t GROUP BY g
