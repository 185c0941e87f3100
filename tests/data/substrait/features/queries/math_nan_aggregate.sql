-- count() and max() over a column with NaN
SELECT count(fn) AS c, count(*) AS n FROM t WHERE NOT isnan(fn)
