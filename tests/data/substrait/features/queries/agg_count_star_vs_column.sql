-- COUNT(*) vs COUNT(column) with NULLs
SELECT count(*) AS n, count(k) AS nk, count(s) AS ns FROM t
