-- date + INTERVAL 'n' DAY across a month and a leap day
SELECT id, dt + INTERVAL '3' DAY AS r FROM t
