-- a timestamp compared with a TIMESTAMP literal
SELECT id FROM tm WHERE ts < TIMESTAMP '2024-02-29 12:00:00'
