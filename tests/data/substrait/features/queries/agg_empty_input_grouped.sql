-- grouped aggregates over no rows: no rows
SELECT g, count(*) AS n FROM e GROUP BY g
