CREATE TABLE IF NOT EXISTS captured (event_id VARCHAR(128) NOT NULL PRIMARY KEY, order_id VARCHAR(64), amount INT, event_version INT);
