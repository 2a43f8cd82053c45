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

package io.github.clustersingleton.cluster.node;

import java.time.Instant;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.TriggerContext;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The node's scheduler, which also tells each run the fire time its trigger was scheduled
 * for, so that the ledger can show how late a trigger fired and which slot it was meant
 * for. A diagnostic of the harness only: cluster-singleton itself never sees it.
 * <p>
 * {@link ThreadPoolTaskScheduler} asks the trigger for the next fire time, waits for it
 * and then runs the task on a pool thread, and asks again only after the run; so the last
 * time the trigger returned is the fire time of the run under way.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
class FireTimeRecordingTaskScheduler extends ThreadPoolTaskScheduler {

	private static final ThreadLocal<Instant> fireTime = new ThreadLocal<>();

	/**
	 * Return the fire time the running trigger was scheduled for, on the node's clock.
	 * @return the fire time, or {@code null} outside a trigger of this scheduler
	 */
	static @Nullable Instant current() {
		return fireTime.get();
	}

	@Override
	public @Nullable ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
		Recording recording = new Recording(task, trigger);
		return super.schedule(recording, recording::nextExecution);
	}

	private static final class Recording implements Runnable {

		private final Runnable task;

		private final Trigger trigger;

		private volatile @Nullable Instant next;

		Recording(Runnable task, Trigger trigger) {
			this.task = task;
			this.trigger = trigger;
		}

		@Nullable Instant nextExecution(TriggerContext context) {
			Instant next = this.trigger.nextExecution(context);
			this.next = next;
			return next;
		}

		@Override
		public void run() {
			fireTime.set(this.next);
			try {
				this.task.run();
			}
			finally {
				fireTime.remove();
			}
		}

		@Override
		public String toString() {
			return this.task.toString();
		}

	}

}
