-- SUM(DISTINCT) of a column with duplicates
SELECT sum(DISTINCT k) AS sk, sum(k) AS s2 FROM t
