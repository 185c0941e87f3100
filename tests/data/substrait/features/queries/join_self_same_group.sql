-- self join within a group, pairs in order
SELECT a.id, b.id AS other FROM t a JOIN t b ON a.g = b.g AND a.id < b.id
