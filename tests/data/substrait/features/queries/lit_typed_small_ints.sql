-- tinyint and smallint literals through casts
SELECT cast(7 AS tinyint) AS a, cast(-300 AS smallint) AS b2, cast(100000 AS integer) AS c
