-- anti join written as NOT EXISTS (NULL keys stay)
SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k)
