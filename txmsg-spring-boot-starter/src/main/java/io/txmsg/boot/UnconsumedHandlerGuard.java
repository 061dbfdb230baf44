package io.txmsg.boot;

import io.txmsg.api.consumer.TxMessageHandler;
import java.lang.reflect.Method;
import java.util.Map;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;

/**
 * Registered when the consumers are neither configured ({@code txmsg.consumer.groups}) nor switched
 * on or off: a {@code @TxMessageHandler} method then fails the start, naming the group and topic to
 * configure. Without it, a handler whose group was never configured would silently receive nothing.
 */
final class UnconsumedHandlerGuard implements BeanPostProcessor, EnvironmentAware {
  private Environment environment;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    Map<Method, TxMessageHandler> found =
        MethodIntrospector.selectMethods(
            AopUtils.getTargetClass(bean),
            (MethodIntrospector.MetadataLookup<TxMessageHandler>)
                m -> AnnotatedElementUtils.findMergedAnnotation(m, TxMessageHandler.class));
    for (Map.Entry<Method, TxMessageHandler> e : found.entrySet()) {
      String group = environment.resolvePlaceholders(e.getValue().consumerGroup());
      String topic = environment.resolvePlaceholders(e.getValue().topic());
      throw new InvalidTxmsgPropertyException(
          "txmsg.consumer.groups",
          "names no consumer group, so the consumers do not start, but "
              + beanName
              + "."
              + e.getKey().getName()
              + " is a @TxMessageHandler of group "
              + group
              + ": set txmsg.consumer.groups."
              + group
              + ".topics="
              + topic
              + " (or txmsg.consumer.enabled=false to run without consumers)");
    }
    return bean;
  }
}
