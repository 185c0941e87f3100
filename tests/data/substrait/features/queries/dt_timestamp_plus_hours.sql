-- timestamp + INTERVAL '5' HOUR across midnight
SELECT id, ts + INTERVAL '5' HOUR AS r FROM tm
