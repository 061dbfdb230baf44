CREATE TABLE points (event_id VARCHAR(64) NOT NULL PRIMARY KEY, account VARCHAR(64), amount INT);
