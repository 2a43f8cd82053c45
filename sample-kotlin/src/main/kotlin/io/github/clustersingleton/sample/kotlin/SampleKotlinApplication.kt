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

package io.github.clustersingleton.sample.kotlin

import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.runApplication
import org.springframework.scheduling.annotation.EnableScheduling

/**
 * Entry point of the Kotlin demo. Every copy started on this machine shares the lease
 * table of one H2 file database, so the copies behave like the nodes of a cluster.
 *
 * The classes Spring proxies are `open` by hand; an application built with the
 * `kotlin-spring` compiler plugin can leave that out.
 *
 * @author cluster-singleton contributors
 */
@SpringBootApplication
@EnableScheduling
open class SampleKotlinApplication

fun main(args: Array<String>) {
	runApplication<SampleKotlinApplication>(*args)
}
