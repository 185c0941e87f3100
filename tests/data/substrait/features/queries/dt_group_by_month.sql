-- group by the month of a date
SELECT extract(month FROM dt) AS m, count(*) AS n FROM t WHERE dt IS NOT NULL GROUP BY extract(month FROM dt)
