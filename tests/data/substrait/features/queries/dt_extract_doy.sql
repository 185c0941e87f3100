-- day of year of a date (leap day included)
SELECT id, extract(doy FROM dt) AS d FROM t
