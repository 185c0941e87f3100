-- typed NULL literals
SELECT cast(NULL AS integer) AS a, cast(NULL AS varchar(30)) AS b2, cast(NULL AS date) AS c, cast(NULL AS decimal(10, 2)) AS d
