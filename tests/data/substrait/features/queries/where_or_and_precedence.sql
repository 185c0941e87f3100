-- AND binds tighter than OR
SELECT id FROM t WHERE g = 'a' OR g = 'b' AND ii > 5
