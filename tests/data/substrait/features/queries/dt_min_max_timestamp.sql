-- min() and max() of timestamps
SELECT min(ts) AS t1, max(ts) AS t2 FROM tm
