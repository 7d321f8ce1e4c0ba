-- The tables of the write floors (bench/hello_db.c), created once per run by
-- scripts/bench.sh in the stack's database: 100,000 rows to update, an empty
-- table to insert into, and @DELETE_ROWS@ rows to delete (each once).
DROP TABLE IF EXISTS bench_floor_update, bench_floor_insert, bench_floor_delete;
CREATE TABLE bench_floor_update (id BIGINT UNSIGNED PRIMARY KEY, user_id BIGINT UNSIGNED NOT NULL,
  generation INT UNSIGNED NOT NULL, used_at DATETIME NOT NULL) ENGINE=InnoDB;
CREATE TABLE bench_floor_insert (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, site_id BIGINT UNSIGNED NOT NULL,
  recipient VARCHAR(2048) NOT NULL, subject VARCHAR(998) NOT NULL, body MEDIUMTEXT NOT NULL,
  created_at DATETIME NOT NULL) ENGINE=InnoDB;
CREATE TABLE bench_floor_delete (id BIGINT UNSIGNED PRIMARY KEY, code_hash BINARY(32) NOT NULL,
  user_id BIGINT UNSIGNED NOT NULL, expires_at DATETIME NOT NULL) ENGINE=InnoDB;
INSERT INTO bench_floor_update SELECT seq, seq, 1, NOW() FROM seq_1_to_100000;
INSERT INTO bench_floor_delete SELECT seq, UNHEX(SHA2(seq, 256)), seq, NOW() + INTERVAL 1 DAY
  FROM seq_1_to_@DELETE_ROWS@;
