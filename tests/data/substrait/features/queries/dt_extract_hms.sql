-- EXTRACT(HOUR/MINUTE FROM timestamp)
SELECT id, extract(hour FROM ts) AS h, extract(minute FROM ts) AS mi FROM tm
