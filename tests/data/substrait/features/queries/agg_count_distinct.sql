-- COUNT(DISTINCT) ignores NULLs
SELECT count(DISTINCT k) AS nk, count(DISTINCT g) AS ng FROM t
