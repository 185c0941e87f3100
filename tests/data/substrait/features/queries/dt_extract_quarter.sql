-- EXTRACT(QUARTER FROM date)
SELECT id, extract(quarter FROM dt) AS q FROM t
