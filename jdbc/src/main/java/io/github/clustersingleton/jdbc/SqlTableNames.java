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

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.util.StringUtils;

/**
 * What a configurable table name may be: an SQL identifier, optionally schema-qualified
 * (letters, digits and underscores, not starting with a digit), so that it can be put
 * into statements as it is.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
public final class SqlTableNames {

	private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

	private SqlTableNames() {
	}

	/**
	 * Return whether a table name is an SQL identifier, optionally schema-qualified.
	 * @param tableName the table name
	 * @return {@code true} when it is
	 */
	public static boolean isValid(@Nullable String tableName) {
		return StringUtils.hasText(tableName) && TABLE_NAME.matcher(tableName).matches();
	}

}
