-- self join of each row with the row before it
SELECT a.id, b.id AS prev_id, a.ii - b.ii AS delta FROM t a JOIN t b ON a.id = b.id + 1
