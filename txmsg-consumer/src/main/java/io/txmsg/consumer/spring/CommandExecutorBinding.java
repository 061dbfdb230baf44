package io.txmsg.consumer.spring;

import io.txmsg.api.consumer.CommandExecutor;

/** A bean that registers the executor of one command type with the Spring-wired consumer. */
public record CommandExecutorBinding(String commandType, CommandExecutor executor) {}
