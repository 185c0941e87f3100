-- a scalar subquery in WHERE
SELECT id FROM t WHERE ii > (SELECT avg(v) FROM u)
