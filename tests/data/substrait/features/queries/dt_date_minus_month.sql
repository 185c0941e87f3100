-- date - INTERVAL '1' MONTH (end of month clamps)
SELECT id, dt - INTERVAL '1' MONTH AS r FROM t
