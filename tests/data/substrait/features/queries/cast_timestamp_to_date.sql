-- a timestamp to its date
SELECT id, cast(ts AS date) AS r FROM tm
