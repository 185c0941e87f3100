-- a WITH clause used twice
WITH c AS (SELECT k, count(*) AS n FROM u GROUP BY k) SELECT a.k, a.n, b.n AS n2 FROM c a JOIN c b ON a.k = b.k
