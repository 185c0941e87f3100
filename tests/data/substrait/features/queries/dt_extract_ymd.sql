-- EXTRACT(YEAR/MONTH/DAY FROM date)
SELECT id, extract(year FROM dt) AS y, extract(month FROM dt) AS m, extract(day FROM dt) AS d FROM t
