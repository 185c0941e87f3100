-- date_trunc('month', timestamp)
SELECT id, date_trunc('month', ts) AS m FROM tm
