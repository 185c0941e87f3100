-- a string to decimal
SELECT cast(x AS decimal(10, 2)) AS d FROM (VALUES ('1.25'), ('-3.5'), ('100')) v(x)
