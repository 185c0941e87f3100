-- GROUP BY an expression of a date
SELECT extract(year FROM dt) AS y, count(*) AS n FROM t GROUP BY extract(year FROM dt)
