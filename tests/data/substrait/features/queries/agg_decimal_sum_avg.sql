-- sum and avg of decimals of several precisions
SELECT sum(d1) AS s1, sum(d2) AS s2, sum(d3) AS s3, avg(d1) AS a1 FROM t
