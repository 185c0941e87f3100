-- comma join with the condition in WHERE
SELECT t.id, u.v FROM t, u WHERE t.k = u.k AND u.v < 3
