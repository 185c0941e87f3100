-- a date to a timestamp at midnight
SELECT id, cast(dt AS timestamp) AS r FROM t
