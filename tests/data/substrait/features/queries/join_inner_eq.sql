-- inner equi-join with duplicate keys on both sides (NULL keys never match)
SELECT t.id, u.id AS uid, t.k FROM t JOIN u ON t.k = u.k
