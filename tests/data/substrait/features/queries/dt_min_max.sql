-- min() and max() of dates
SELECT min(dt) AS d1, max(dt) AS d2 FROM t
