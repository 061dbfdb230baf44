package io.txmsg.boot;

import java.util.UUID;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/** Context runners as a Boot application has them: an H2 DataSource, its transaction manager. */
final class Contexts {
  private Contexts() {}

  /** The txmsg auto-configurations over a fresh in-memory H2 database. */
  static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class,
                TxmsgAutoConfiguration.class,
                TxmsgHealthAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
  }

  /** The report Boot prints, from the analyzers registered in spring.factories, for the cause. */
  static FailureAnalysis analyze(Throwable failure, Class<? extends Throwable> cause) {
    for (FailureAnalyzer analyzer :
        SpringFactoriesLoader.forDefaultResourceLocation()
            .load(
                FailureAnalyzer.class,
                // what Boot hands the analyzers that take constructor arguments
                ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
                    .and(Environment.class, new StandardEnvironment()),
                // Boot skips an analyzer whose classes are absent (e.g. spring-web's), as here
                FailureHandler.logging(LogFactory.getLog(Contexts.class)))) {
      FailureAnalysis analysis = analyzer.analyze(failure);
      if (analysis != null && cause.isInstance(analysis.getCause())) {
        return analysis;
      }
    }
    throw new AssertionError("no registered FailureAnalyzer reports", failure);
  }
}
