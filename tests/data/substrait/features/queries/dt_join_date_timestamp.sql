-- a date compared with a timestamp's date across a join
SELECT t.id, t.dt, tm.ts FROM t JOIN tm ON t.id = tm.id WHERE cast(tm.ts AS date) = t.dt
