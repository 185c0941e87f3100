-- join with an aggregated derived table
SELECT t.id, x.n FROM t JOIN (SELECT k, count(*) AS n FROM u GROUP BY k) x ON t.k = x.k
