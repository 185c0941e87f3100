-- avg of integers is fractional
SELECT g, avg(ii) AS a FROM t GROUP BY g
