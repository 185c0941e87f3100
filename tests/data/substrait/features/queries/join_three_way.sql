-- three tables joined
SELECT t.id, u.id AS uid, u2.id AS uid2 FROM t JOIN u ON t.k = u.k JOIN u u2 ON u.g = u2.g AND u2.v = u.v
