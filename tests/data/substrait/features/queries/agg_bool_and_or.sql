-- bool_and / bool_or over booleans with NULLs
SELECT g, bool_and(b) AS ba, bool_or(b) AS bo FROM t GROUP BY g
