package io.txmsg.testkit.spring;

import java.util.List;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Finds {@link EmbeddedTxmsgBroker} on a test class (or an enclosing class of a {@code @Nested}
 * one) and customizes its context. Registered in {@code META-INF/spring.factories}; uses only
 * spring-test API of Spring 6.2 and 7.
 */
public class EmbeddedTxmsgBrokerContextCustomizerFactory implements ContextCustomizerFactory {
  @Override
  public ContextCustomizer createContextCustomizer(
      Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
    EmbeddedTxmsgBroker annotation =
        TestContextAnnotationUtils.findMergedAnnotation(testClass, EmbeddedTxmsgBroker.class);
    return annotation == null ? null : new EmbeddedTxmsgBrokerContextCustomizer(annotation);
  }
}
