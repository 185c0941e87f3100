-- date + INTERVAL '1' YEAR (leap day to Feb 28)
SELECT id, dt + INTERVAL '1' YEAR AS r FROM t
