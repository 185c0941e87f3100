-- a REAL literal through a cast
SELECT cast(0.5 AS real) AS a
