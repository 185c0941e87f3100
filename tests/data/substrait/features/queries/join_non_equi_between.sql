-- inner join on a BETWEEN range
SELECT t.id, u.id AS uid FROM t JOIN u ON t.id BETWEEN u.v AND u.v + 1
