-- lag() of a date column
SELECT id, dt, lag(dt) OVER (ORDER BY id) AS p FROM t
