/*
 * Copyright 2026 the original author or authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.github.clustersingleton.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.SqlParameterValue;

/**
 * How a platform's time columns hold an instant: how one is bound as a parameter, read
 * from a row, and what SQL type the columns have. Instants are rounded down to the
 * microsecond precision of every supported database, so that a slot compares equal to
 * what the database stored for it.
 *
 * @author cluster-singleton contributors
 */
enum TimeBinding {

	/**
	 * {@code TIMESTAMP WITH TIME ZONE} columns, bound as an {@link OffsetDateTime} in UTC
	 * (PostgreSQL, H2).
	 */
	OFFSET_DATE_TIME("TIMESTAMP WITH TIME ZONE") {

		@Override
		SqlParameterValue bind(@Nullable Instant instant) {
			return new SqlParameterValue(Types.TIMESTAMP_WITH_TIMEZONE,
					(instant != null) ? OffsetDateTime.ofInstant(toMicros(instant), ZoneOffset.UTC) : null);
		}

		@Override
		@Nullable Instant read(ResultSet resultSet, String column) throws SQLException {
			OffsetDateTime value = resultSet.getObject(column, OffsetDateTime.class);
			return (value != null) ? value.toInstant() : null;
		}

	},

	/**
	 * {@code DATETIME} columns that hold UTC, bound as a {@link LocalDateTime} in UTC
	 * (MySQL, MariaDB).
	 */
	UTC_LOCAL_DATE_TIME("DATETIME(6) NULL") {

		@Override
		SqlParameterValue bind(@Nullable Instant instant) {
			return new SqlParameterValue(Types.TIMESTAMP,
					(instant != null) ? LocalDateTime.ofInstant(toMicros(instant), ZoneOffset.UTC) : null);
		}

		@Override
		@Nullable Instant read(ResultSet resultSet, String column) throws SQLException {
			LocalDateTime value = resultSet.getObject(column, LocalDateTime.class);
			return (value != null) ? value.toInstant(ZoneOffset.UTC) : null;
		}

	};

	private final String columnType;

	TimeBinding(String columnType) {
		this.columnType = columnType;
	}

	/**
	 * Return the binding of a platform's time columns.
	 * @param platform the platform
	 * @return the binding
	 */
	static TimeBinding of(JdbcPlatform platform) {
		return switch (platform) {
			case POSTGRESQL, H2 -> OFFSET_DATE_TIME;
			case MYSQL, MARIADB -> UTC_LOCAL_DATE_TIME;
		};
	}

	/**
	 * Bind an instant, or SQL {@code NULL}, in the type of the time columns.
	 * @param instant the instant
	 * @return the parameter value
	 */
	abstract SqlParameterValue bind(@Nullable Instant instant);

	/**
	 * Read a time column as an instant.
	 * @param resultSet the result set
	 * @param column the column label
	 * @return the instant, or {@code null}
	 * @throws SQLException on a driver error
	 */
	abstract @Nullable Instant read(ResultSet resultSet, String column) throws SQLException;

	/**
	 * Return the SQL type of the time columns.
	 * @return the type
	 */
	String columnType() {
		return this.columnType;
	}

	/**
	 * Round an instant down to the microsecond precision of every supported database, so
	 * that a slot compares equal to what the database stored for it.
	 * @param instant the instant
	 * @return the truncated instant
	 */
	static Instant toMicros(Instant instant) {
		return instant.truncatedTo(ChronoUnit.MICROS);
	}

}
